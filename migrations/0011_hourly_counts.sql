-- Readiness's "last 24 hours" counts without counting the day's events one by one: events per
-- program, hour (UTC, date_bin) and kind, kept by the statement that records each event. The
-- shard is the connection's (backend pid modulo 64): concurrent transactions of one busy
-- program write different rows, so recording never queues on one counter row.
CREATE TABLE tracking_hourly_counts (
  program_id  bigint NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
  hour        timestamptz NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('click', 'lead', 'sale')),
  shard       smallint NOT NULL,
  events      bigint NOT NULL,
  PRIMARY KEY (program_id, hour, kind, shard)
);

INSERT INTO tracking_hourly_counts (program_id, hour, kind, shard, events)
SELECT program_id, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00'), kind, 0, count(*)
  FROM tracking_events
 GROUP BY 1, 2, 3;
