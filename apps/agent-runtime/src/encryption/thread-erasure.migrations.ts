import { KEY_STORE_MIGRATIONS, KEY_STORE_TABLE } from '#libs/encryption';

/**
 * The key store, and the erasure of a deleted thread in the transaction that appends its
 * deletion (`ThreadDeleted`, `ThreadExpired`): its data key is deleted, and with it the read-model
 * rows of its runs and its runs still waiting in the queue. A log kept elsewhere (EventStoreDB)
 * has no such trigger: the runtime destroys the key right after the append there.
 */
export const ENCRYPTION_MIGRATIONS = [
  ...KEY_STORE_MIGRATIONS,
  {
    version: 2702,
    name: 'a deleted thread erased with its deletion',
    sql: `
      create function berth_erase_thread() returns trigger language plpgsql as $$
      declare
        v_thread text := substr(new.stream_id, length('thread-') + 1);
      begin
        delete from ${KEY_STORE_TABLE} where scope = 'thread:' || v_thread;
        delete from runs where thread_id::text = v_thread;
        delete from run_queue where thread_id::text = v_thread and status = 'pending';
        return null;
      end $$;
      do $$
      begin
        if to_regclass('es_events') is not null then
          create trigger es_events_erase_thread after insert on es_events
            for each row
            when (new.event_type in ('ThreadDeleted', 'ThreadExpired')
                  and new.stream_id like 'thread-%')
            execute function berth_erase_thread();
        end if;
      end $$;
    `,
  },
];
