-- database: ods
-- No schema at all: what is certain binds, ambiguity shows as PARTIAL with a diagnostic.
INSERT INTO ads_user_day
SELECT u.user_id, u.city, COUNT(e.event_id) AS events
FROM dim_user u JOIN dwd_event e ON u.user_id = e.user_id
GROUP BY u.user_id, u.city;

INSERT INTO ads_user_day
SELECT user_id, city, event_cnt FROM dim_user;

INSERT INTO ads_user_day
SELECT u.user_id, city, COUNT(*) FROM dim_user u JOIN dwd_event e ON u.user_id = e.user_id GROUP BY u.user_id, city;

INSERT INTO ads_user_day
SELECT e.* FROM dwd_event e WHERE e.dt = '2024-01-01';

INSERT INTO ads_user_day
SELECT a, b FROM t1, t2;

CREATE TABLE ads_copy AS SELECT user_id AS uid, UPPER(city) AS city_uc FROM dim_user WHERE dt = '2024-01-01';

INSERT INTO ads_copy SELECT uid, city_uc FROM ads_copy WHERE uid > 0;
