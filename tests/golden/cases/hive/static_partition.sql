-- database: dw
-- A static PARTITION (dt = '...') gives dt its value: the select list binds to the other columns.
INSERT OVERWRITE TABLE dwd_pv PARTITION (dt = '2024-01-01') SELECT uid, url FROM ods_log WHERE dt = '2024-01-01';
INSERT INTO TABLE dwd_pv PARTITION (dt) SELECT uid, url, dt FROM ods_log;
