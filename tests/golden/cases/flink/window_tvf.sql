-- database: default_database
-- A windowing table-valued function: the statement must not fail; at least table lineage and a diagnostic.
CREATE TABLE clicks (user_id BIGINT, url STRING, `ts` TIMESTAMP(3)) WITH ('connector' = 'datagen');
CREATE TABLE url_counts (url STRING, window_start TIMESTAMP(3), cnt BIGINT) WITH ('connector' = 'print');
INSERT INTO url_counts
SELECT url, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(`ts`), INTERVAL '10' MINUTES))
GROUP BY url, window_start, window_end;
