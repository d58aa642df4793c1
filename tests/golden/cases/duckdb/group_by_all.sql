-- database: main
-- GROUP BY ALL groups by every non-aggregate select expression: those are the GROUP_BY keys.
CREATE TABLE events (id INTEGER, ts TIMESTAMP);
CREATE TABLE daily AS SELECT date_trunc('day', ts) AS d, count(*) AS n FROM events GROUP BY ALL;
