-- database: ods
-- A diagnostic points at its construct: the `*` itself, as it does for `e.*`.
INSERT INTO ads_user_day SELECT * FROM dim_user;
INSERT INTO ads_user_day SELECT e.* FROM dwd_event e;
