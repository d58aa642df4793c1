-- database: dws
-- BITMAP_UNION / HLL_UNION are StarRocks (and Doris) aggregate functions: the value is an AGGREGATION.
CREATE TABLE ods_events (event_id BIGINT, user_id BIGINT, dt DATE);
INSERT INTO user_uv (dt, uv_bitmap) SELECT dt, BITMAP_UNION(TO_BITMAP(user_id)) FROM ods_events GROUP BY dt;
