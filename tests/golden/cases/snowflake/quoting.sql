-- database: ANALYTICS
-- Snowflake folds unquoted names to upper case; quoted names are exact.
CREATE TABLE ANALYTICS.RAW_EVENTS (ID NUMBER, "payload" VARIANT, EVENT_TS TIMESTAMP_NTZ, "Mixed Case" VARCHAR);
INSERT INTO report SELECT id, "payload":user.id::string AS user_id, event_ts, "Mixed Case" FROM raw_events;
INSERT INTO report SELECT ID, payload FROM RAW_EVENTS;
INSERT INTO report SELECT e.id, f.value:sku::string FROM raw_events e, LATERAL FLATTEN(input => e."payload":items) f;
INSERT INTO report SELECT id, IFF(event_ts > '2024-01-01', 'new', 'old'), ZEROIFNULL(id), SHA2(CAST("Mixed Case" AS VARCHAR)) FROM raw_events;
INSERT INTO report SELECT id, event_ts FROM raw_events QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY event_ts DESC) = 1;
