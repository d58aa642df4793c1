-- database: ods
-- StarRocks ETL: DDL with keys and buckets, USE, CTAS with properties, windows, arrays, UNNEST.
CREATE DATABASE IF NOT EXISTS dws;
CREATE TABLE ods.events (
    event_id BIGINT,
    user_id BIGINT,
    event_type VARCHAR(32),
    tags ARRAY<VARCHAR(16)>,
    payload JSON,
    event_time DATETIME,
    dt DATE
) DUPLICATE KEY(event_id) PARTITION BY RANGE(dt) (START ('2024-01-01') END ('2024-12-31') EVERY (INTERVAL 1 DAY)) DISTRIBUTED BY HASH(event_id) BUCKETS 8;
CREATE TABLE ods.users (user_id BIGINT, gender VARCHAR(8), age INT, city VARCHAR(32)) PRIMARY KEY(user_id) DISTRIBUTED BY HASH(user_id);
USE dws;
CREATE TABLE dws.user_daily (dt DATE, user_id BIGINT, pv BIGINT, uv_flag INT, last_event VARCHAR(32)) DUPLICATE KEY(dt, user_id) DISTRIBUTED BY HASH(user_id);
INSERT INTO user_daily
SELECT dt, user_id, COUNT(*), MAX(IF(event_type = 'login', 1, 0)), MAX_BY(event_type, event_time)
FROM ods.events
WHERE dt = '2024-05-01'
GROUP BY dt, user_id;
INSERT OVERWRITE user_daily PARTITION (p20240501)
SELECT e.dt, e.user_id, COUNT(e.event_id), 1, ANY_VALUE(u.city)
FROM ods.events e LEFT JOIN ods.users u ON e.user_id = u.user_id
GROUP BY e.dt, e.user_id;
CREATE TABLE user_age_band PROPERTIES ("replication_num" = "1") AS
SELECT user_id,
       CASE WHEN age < 18 THEN 'minor' WHEN age < 60 THEN 'adult' ELSE 'senior' END AS band,
       NTILE(4) OVER (PARTITION BY city ORDER BY age) AS quartile
FROM ods.users;
INSERT INTO user_daily (dt, user_id, last_event)
SELECT e.dt, e.user_id, t.unnest
FROM ods.events e, UNNEST(e.tags) AS t;
INSERT INTO user_daily (dt, user_id, last_event)
SELECT dt, user_id, get_json_string(payload, '$.page') FROM ods.events WHERE payload IS NOT NULL;
INSERT INTO user_daily (dt, user_id, pv)
SELECT dt, user_id, SUM(pv) OVER (PARTITION BY user_id ORDER BY dt ROWS BETWEEN 6 PRECEDING AND CURRENT ROW)
FROM user_daily;
INSERT INTO user_daily (dt, user_id, pv)
SELECT dt, user_id, COUNT(*) FROM ods.events GROUP BY ROLLUP (dt, user_id);
INSERT INTO user_daily (user_id, last_event)
SELECT user_id, event_type FROM ods.events WHERE event_type IN ('a', 'b')
INTERSECT
SELECT user_id, city FROM ods.users;
INSERT INTO user_daily (dt, user_id, pv)
SELECT dt, user_id, pv FROM user_daily ORDER BY pv DESC LIMIT 10;
INSERT INTO user_daily (dt, user_id, pv, uv_flag)
SELECT dt, user_id, pv, ROW_NUMBER() OVER () FROM user_daily;
INSERT INTO user_daily (user_id, uv_flag) SELECT 1, 2;
INSERT INTO user_daily (user_id, uv_flag) SELECT 1, 2 UNION ALL SELECT 3, 4;
ALTER TABLE ods.users RENAME COLUMN city TO home_city;
INSERT INTO user_daily (user_id, last_event) SELECT user_id, home_city FROM ods.users;
DROP TABLE user_age_band;
INSERT INTO user_daily (user_id, last_event) SELECT user_id, band FROM user_age_band;
