import { KEY_STORE_TABLE } from '#libs/encryption';

/**
 * The erasure of a deleted store item, cron or assistant in the transaction that appends its
 * deletion: its data key is deleted (scopes as in resource-content.ts), and with it the
 * read-model row that held its content. An expiry (`StoreItemExpired`) erases the item only
 * when the read model still holds the expiry the sweeper saw, as the projection decides.
 */
export const RESOURCE_ERASURE_MIGRATIONS = [
  {
    version: 2703,
    name: 'a deleted store item, cron or assistant erased with its deletion',
    sql: `
      create index store_items_address on store_items (namespace_path, key);

      create function berth_erase_store_item() returns trigger language plpgsql as $$
      declare
        v_path text := array_to_string(
          array(select jsonb_array_elements_text(new.data->'namespace')), '.');
        v_key text := new.data->>'key';
        v_erased int;
      begin
        if new.event_type = 'StoreItemExpired' then
          delete from store_items where namespace_path = v_path and key = v_key
            and expires_at = (new.data->>'expires_at')::timestamptz;
          get diagnostics v_erased = row_count;
          if v_erased = 0 then return null; end if;
        else
          delete from store_items where namespace_path = v_path and key = v_key;
        end if;
        delete from ${KEY_STORE_TABLE}
         where scope = 'store:' || encode(sha256(convert_to(v_path, 'UTF8')), 'hex')
                    || ':' || encode(sha256(convert_to(v_key, 'UTF8')), 'hex');
        return null;
      end $$;

      create function berth_erase_cron() returns trigger language plpgsql as $$
      declare
        v_cron text := substr(new.stream_id, length('cron-') + 1);
      begin
        delete from ${KEY_STORE_TABLE} where scope = 'cron:' || v_cron;
        delete from crons where cron_id::text = v_cron;
        return null;
      end $$;

      create function berth_erase_assistant() returns trigger language plpgsql as $$
      declare
        v_assistant text := substr(new.stream_id, length('assistant-') + 1);
      begin
        delete from ${KEY_STORE_TABLE} where scope = 'assistant:' || v_assistant;
        delete from assistants where assistant_id::text = v_assistant;
        return null;
      end $$;

      do $$
      begin
        if to_regclass('es_events') is not null then
          create trigger es_events_erase_store_item after insert on es_events
            for each row
            when (new.event_type in ('StoreItemDeleted', 'StoreItemExpired')
                  and new.stream_id like 'store-%')
            execute function berth_erase_store_item();
          create trigger es_events_erase_cron after insert on es_events
            for each row
            when (new.event_type = 'CronDeleted' and new.stream_id like 'cron-%')
            execute function berth_erase_cron();
          create trigger es_events_erase_assistant after insert on es_events
            for each row
            when (new.event_type = 'AssistantDeleted' and new.stream_id like 'assistant-%')
            execute function berth_erase_assistant();
        end if;
      end $$;
    `,
  },
];
