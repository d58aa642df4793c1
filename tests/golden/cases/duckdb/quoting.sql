-- database: main
-- DuckDB: case-insensitive identifiers, struct dot access, list functions, UNNEST, QUALIFY.
CREATE TABLE events (id INTEGER, "User" STRUCT(name VARCHAR, age INTEGER), tags VARCHAR[], ts TIMESTAMP);
INSERT INTO report SELECT id, "User".name, len(tags) FROM events;
INSERT INTO report SELECT ID, "user".AGE FROM EVENTS;
INSERT INTO report SELECT id, unnest(tags) AS tag FROM events;
INSERT INTO report SELECT id, list_aggregate(tags, 'string_agg', ',') FROM events QUALIFY row_number() OVER (PARTITION BY id ORDER BY ts) = 1;
CREATE TABLE daily AS SELECT date_trunc('day', ts) AS d, count(*) AS n FROM events GROUP BY 1;
