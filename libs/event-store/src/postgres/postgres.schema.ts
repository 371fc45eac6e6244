export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Applied in order, each once; a migration is never edited after it ships, only followed by another. */
export const EVENT_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'streams and events',
    sql: `
      create table es_streams (
        stream_id text primary key,
        stream_position bigint not null
      );

      create table es_events (
        global_position bigint generated always as identity,
        transaction_id xid8 not null default pg_current_xact_id(),
        stream_id text not null,
        stream_position bigint not null,
        event_id uuid not null,
        event_type text not null,
        data jsonb not null,
        metadata jsonb not null default '{}',
        recorded_at timestamptz not null default now(),
        constraint es_events_stream_position_key primary key (stream_id, stream_position),
        constraint es_events_event_id_key unique (event_id)
      );

      create index es_events_log_order on es_events (transaction_id, global_position);
    `,
  },
  {
    version: 2,
    name: 'append in one round trip',
    // p_expected: n >= 0 exact position, -1 no stream, -2 any, -3 stream exists.
    sql: `
      create function es_append(p_stream text, p_expected bigint, p_events jsonb)
      returns table (outcome text, stream_position bigint, transaction_id xid8, global_position bigint)
      language plpgsql as $$
      declare
        v_current bigint;
        v_count bigint := jsonb_array_length(p_events);
        v_found bigint;
        v_first bigint;
        v_last bigint;
        v_last_global bigint;
        v_last_tx xid8;
      begin
        insert into es_streams (stream_id, stream_position) values (p_stream, -1)
          on conflict on constraint es_streams_pkey do nothing;
        select s.stream_position into v_current
          from es_streams s where s.stream_id = p_stream for update;

        select e.stream_position into v_first
          from es_events e where e.event_id = (p_events->0->>'eventId')::uuid;
        if found then
          select count(*), max(e.stream_position) into v_found, v_last
            from jsonb_array_elements(p_events) with ordinality as x(event, ord)
            join es_events e
              on e.stream_id = p_stream
             and e.stream_position = v_first + x.ord - 1
             and e.event_id = (x.event->>'eventId')::uuid;
          if v_found <> v_count then
            return query select 'duplicate_mismatch'::text, v_current, null::xid8, null::bigint;
            return;
          end if;
          select e.transaction_id, e.global_position into v_last_tx, v_last_global
            from es_events e where e.stream_id = p_stream and e.stream_position = v_last;
          return query select 'duplicate'::text, v_last, v_last_tx, v_last_global;
          return;
        end if;

        if not (p_expected = -2
                or (p_expected = -3 and v_current >= 0)
                or (p_expected >= -1 and p_expected = v_current)) then
          return query select 'wrong_expected_position'::text, v_current, null::xid8, null::bigint;
          return;
        end if;

        with inserted as (
          insert into es_events (stream_id, stream_position, event_id, event_type, data, metadata)
          select p_stream, v_current + x.ord, (x.event->>'eventId')::uuid, x.event->>'type',
                 x.event->'data', coalesce(x.event->'metadata', '{}'::jsonb)
            from jsonb_array_elements(p_events) with ordinality as x(event, ord)
           order by x.ord
          returning es_events.global_position
        )
        select max(inserted.global_position) into v_last_global from inserted;

        update es_streams s set stream_position = v_current + v_count where s.stream_id = p_stream;
        return query select 'appended'::text, v_current + v_count, pg_current_xact_id(), v_last_global;
      end;
      $$;
    `,
  },
  {
    version: 3,
    name: 'appends to several streams in one transaction',
    // Streams are locked in the order of their ids, so two groups never wait for each other in
    // a cycle; each append runs in a block of its own, so one that fails fails alone.
    sql: `
      create function es_append_many(p_streams text[], p_expected bigint[], p_events text[])
      returns table (ord integer, outcome text, stream_position bigint, transaction_id xid8,
                     global_position bigint, error_code text, error_constraint text,
                     error_message text)
      language plpgsql as $$
      declare
        v_item record;
        v_result record;
        v_code text;
        v_constraint text;
        v_message text;
      begin
        for v_item in
          select (x.ord - 1)::integer as ord, x.stream
            from unnest(p_streams) with ordinality as x(stream, ord)
           order by x.stream collate "C", x.ord
        loop
          begin
            -- The events are parsed here, so that JSON PostgreSQL refuses fails this append alone.
            select * into v_result
              from es_append(v_item.stream, p_expected[v_item.ord + 1],
                             p_events[v_item.ord + 1]::jsonb);
            return query select v_item.ord, v_result.outcome, v_result.stream_position,
                                v_result.transaction_id, v_result.global_position,
                                null::text, null::text, null::text;
          exception when others then
            get stacked diagnostics v_code = returned_sqlstate,
                                    v_constraint = constraint_name,
                                    v_message = message_text;
            return query select v_item.ord, 'failed'::text, null::bigint, null::xid8,
                                null::bigint, v_code, v_constraint, v_message;
          end;
        end loop;
      end;
      $$;
    `,
  },
  {
    version: 4,
    name: 'copy a stream without reading it out',
    sql: `
      create function es_copy_stream(p_source text, p_target text)
      returns table (outcome text, stream_position bigint, transaction_id xid8, global_position bigint)
      language plpgsql as $$
      declare
        v_current bigint;
        v_count bigint;
        v_last_global bigint;
      begin
        insert into es_streams (stream_id, stream_position) values (p_target, -1)
          on conflict on constraint es_streams_pkey do nothing;
        select s.stream_position into v_current
          from es_streams s where s.stream_id = p_target for update;
        if v_current <> -1 then
          return query select 'wrong_expected_position'::text, v_current, null::xid8, null::bigint;
          return;
        end if;

        with inserted as (
          insert into es_events (stream_id, stream_position, event_id, event_type, data)
          select p_target, row_number() over (order by e.stream_position) - 1, gen_random_uuid(),
                 e.event_type, e.data
            from es_events e
           where e.stream_id = p_source
           order by e.stream_position
          returning es_events.global_position
        )
        select count(*), max(inserted.global_position) into v_count, v_last_global from inserted;

        if v_count = 0 then
          delete from es_streams s where s.stream_id = p_target;
          return query select 'empty'::text, -1::bigint, null::xid8, null::bigint;
          return;
        end if;
        update es_streams s set stream_position = v_count - 1 where s.stream_id = p_target;
        return query select 'appended'::text, v_count - 1, pg_current_xact_id(), v_last_global;
      end;
      $$;
    `,
  },
  {
    version: 5,
    name: 'copy a stream and append to another, in one transaction',
    sql: `
      create function es_copy_stream_and_append(
        p_source text, p_target text, p_stream text, p_expected bigint, p_events jsonb)
      returns table (copy_outcome text, copy_position bigint, copy_global_position bigint,
                     outcome text, stream_position bigint, transaction_id xid8,
                     global_position bigint)
      language plpgsql as $$
      declare
        v_copy record;
        v_append record;
      begin
        begin
          select * into v_copy from es_copy_stream(p_source, p_target);
          if v_copy.outcome = 'wrong_expected_position' then
            return query select v_copy.outcome, v_copy.stream_position, null::bigint,
                                null::text, null::bigint, null::xid8, null::bigint;
            return;
          end if;
          select * into v_append from es_append(p_stream, p_expected, p_events);
          if v_append.outcome not in ('appended', 'duplicate') then
            -- Undoes the copy too: the block is rolled back, and the outcome said below.
            raise exception using errcode = 'BE001';
          end if;
        exception when sqlstate 'BE001' then
          return query select 'rolled_back'::text, -1::bigint, null::bigint,
                              v_append.outcome, v_append.stream_position, null::xid8, null::bigint;
          return;
        end;
        return query select v_copy.outcome, v_copy.stream_position, v_copy.global_position,
                            v_append.outcome, v_append.stream_position, v_append.transaction_id,
                            v_append.global_position;
      end;
      $$;
    `,
  },
  {
    version: 6,
    name: 'append to several streams, all or none',
    // Streams are locked in the order of their ids, as es_append_many does. The first refusal
    // undoes what came before it; the rows then say 'rolled_back' for those, and the refusal.
    // p_expected_ids: the id of the event at the expected position, or null not to check it.
    sql: `
      create function es_append_all(p_streams text[], p_expected bigint[], p_expected_ids uuid[],
                                    p_events text[])
      returns table (ord integer, outcome text, stream_position bigint, transaction_id xid8,
                     global_position bigint, error_code text, error_constraint text,
                     error_message text)
      language plpgsql as $$
      declare
        v_item record;
        v_result record;
        v_ords integer[] := '{}';
        v_outcomes text[] := '{}';
        v_positions bigint[] := '{}';
        v_transactions xid8[] := '{}';
        v_globals bigint[] := '{}';
        v_refused integer;
        v_refusal text;
        v_refused_at bigint;
        v_code text;
        v_constraint text;
        v_message text;
      begin
        begin
          for v_item in
            select (x.ord - 1)::integer as ord, x.stream
              from unnest(p_streams) with ordinality as x(stream, ord)
             order by x.stream collate "C", x.ord
          loop
            v_refused := v_item.ord;
            if p_expected_ids[v_item.ord + 1] is not null then
              insert into es_streams (stream_id, stream_position) values (v_item.stream, -1)
                on conflict on constraint es_streams_pkey do nothing;
              select s.stream_position into v_refused_at
                from es_streams s where s.stream_id = v_item.stream for update;
              if not exists (select 1 from es_events e
                              where e.stream_id = v_item.stream
                                and e.stream_position = p_expected[v_item.ord + 1]
                                and e.event_id = p_expected_ids[v_item.ord + 1]) then
                v_refusal := 'wrong_expected_position';
                raise exception using errcode = 'BE002';
              end if;
            end if;
            select * into v_result
              from es_append(v_item.stream, p_expected[v_item.ord + 1],
                             p_events[v_item.ord + 1]::jsonb);
            if v_result.outcome not in ('appended', 'duplicate') then
              v_refusal := v_result.outcome;
              v_refused_at := v_result.stream_position;
              raise exception using errcode = 'BE002';
            end if;
            v_ords := v_ords || v_item.ord;
            v_outcomes := v_outcomes || v_result.outcome;
            v_positions := v_positions || v_result.stream_position;
            v_transactions := v_transactions || v_result.transaction_id;
            v_globals := v_globals || v_result.global_position;
          end loop;
        exception
          when sqlstate 'BE002' then
            return query
              select x.ord, 'rolled_back'::text, null::bigint, null::xid8, null::bigint,
                     null::text, null::text, null::text
                from unnest(v_ords) as x(ord)
              union all
              select v_refused, v_refusal, v_refused_at, null::xid8, null::bigint,
                     null::text, null::text, null::text;
            return;
          when others then
            get stacked diagnostics v_code = returned_sqlstate,
                                    v_constraint = constraint_name,
                                    v_message = message_text;
            return query
              select x.ord, 'rolled_back'::text, null::bigint, null::xid8, null::bigint,
                     null::text, null::text, null::text
                from unnest(v_ords) as x(ord)
              union all
              select v_refused, 'failed'::text, null::bigint, null::xid8, null::bigint,
                     v_code, v_constraint, v_message;
            return;
        end;
        return query
          select x.ord, x.outcome, x.position, x.transaction_id, x.global_position,
                 null::text, null::text, null::text
            from unnest(v_ords, v_outcomes, v_positions, v_transactions, v_globals)
                 as x(ord, outcome, position, transaction_id, global_position);
      end;
      $$;
    `,
  },
  {
    version: 7,
    name: 'event data compressed with lz4 where the server has it',
    // A thread's checkpoints and values chunks carry its whole state: large values, which lz4
    // compresses about twice as fast as the default pglz. Only new values are affected. A server
    // built without lz4 (or older than PostgreSQL 14) keeps pglz.
    sql: `
      do $$
      begin
        execute 'alter table es_events alter column data set compression lz4';
      exception when feature_not_supported or syntax_error then
        null;
      end;
      $$;
    `,
  },
  {
    version: 8,
    name: 'the hash chain sealing the log, and the stream deletions it allows',
    // Written by the sealer only (audit/postgres.chain-sealer.ts), one row per event in log
    // order; no index beyond the key, so sealing stays cheap. Hashes are lowercase hex.
    sql: `
      create table es_chain (
        position bigint primary key,
        transaction_id xid8 not null,
        global_position bigint not null,
        event_id uuid not null,
        stream_id text not null,
        content_hash text not null,
        hash text not null,
        sealed_at timestamptz not null default now()
      );

      create table es_stream_deletions (
        stream_id text not null,
        transaction_id xid8 not null default pg_current_xact_id(),
        deleted_at timestamptz not null default now()
      );
    `,
  },
  {
    version: 9,
    name: "the hash chain's links by event",
    // An export finds its events' links, a verification the position an event was sealed at.
    sql: `create index es_chain_event on es_chain (event_id);`,
  },
];
