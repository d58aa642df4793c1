-- database: dw
-- PARTITIONED BY columns are columns of a Hive table (queryable; a dynamic partition takes the last select column).
CREATE TABLE ods_log (uid BIGINT, url STRING) PARTITIONED BY (dt STRING) STORED AS ORC;
CREATE TABLE dwd_pv (uid BIGINT, url STRING) PARTITIONED BY (dt STRING);
INSERT OVERWRITE TABLE dwd_pv PARTITION (dt) SELECT uid, url, dt FROM ods_log WHERE dt >= '2024-01-01';
INSERT OVERWRITE TABLE dwd_pv PARTITION (dt = '2024-01-01') SELECT l.uid, l.url FROM ods_log l WHERE l.dt = '2024-01-01';
