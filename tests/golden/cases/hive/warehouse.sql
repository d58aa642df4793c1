-- database: dw
-- Tables from the metastore (schema file, partition column dt included).
-- Hive ETL: SET, multi-insert, dynamic partitions, LATERAL VIEW EXPLODE, structs and maps.
SET hive.exec.dynamic.partition.mode=nonstrict;
SET hive.exec.max.dynamic.partitions=2000;
CREATE TABLE IF NOT EXISTS dws_url_cnt (url STRING, cnt BIGINT);
INSERT OVERWRITE TABLE dwd_pv_dyn PARTITION (dt)
SELECT uid, url, device.os, props['channel'], dt FROM ods_log WHERE dt >= '2024-01-01';
INSERT OVERWRITE TABLE dwd_pv PARTITION (dt = '2024-01-01')
SELECT l.uid, l.url, l.device.version, COALESCE(l.props['utm'], 'direct') FROM ods_log l WHERE l.dt = '2024-01-01';
INSERT INTO TABLE dwd_tag PARTITION (dt = '2024-01-01')
SELECT uid, tag FROM ods_log LATERAL VIEW EXPLODE(tags) t AS tag WHERE dt = '2024-01-01';
INSERT INTO TABLE dwd_tag PARTITION (dt = '2024-01-01')
SELECT uid, k FROM ods_log LATERAL VIEW OUTER EXPLODE(props) m AS k, v WHERE v <> '';
FROM ods_log
INSERT OVERWRITE TABLE dws_url_cnt SELECT url, COUNT(1) WHERE dt = '2024-01-01' GROUP BY url
INSERT INTO TABLE dwd_tag PARTITION (dt = '2024-01-02') SELECT uid, referer WHERE referer IS NOT NULL;
FROM (SELECT uid, url, ts FROM ods_log WHERE dt = '2024-01-03') src
INSERT OVERWRITE TABLE dws_url_cnt SELECT src.url, MAX(src.ts) GROUP BY src.url
INSERT OVERWRITE TABLE dwd_pv PARTITION (dt = '2024-01-03') SELECT src.uid, src.url, NULL, NULL;
CREATE TABLE tmp_url STORED AS ORC AS
SELECT parse_url(url, 'HOST') AS host, regexp_extract(url, '/([a-z]+)', 1) AS path, from_unixtime(ts) AS t
FROM ods_log;
INSERT OVERWRITE TABLE dws_url_cnt
SELECT host, SUM(c) FROM (SELECT host, 1 AS c FROM tmp_url UNION ALL SELECT parse_url(referer, 'HOST'), 1 FROM ods_log) u GROUP BY host;
INSERT OVERWRITE TABLE dws_url_cnt
SELECT url, cnt FROM (SELECT url, COUNT(*) cnt, ROW_NUMBER() OVER (ORDER BY COUNT(*) DESC) rn FROM ods_log GROUP BY url) x WHERE rn <= 100;
INSERT OVERWRITE TABLE dws_url_cnt
SELECT concat_ws('|', collect_set(url)), size(collect_list(uid)) FROM ods_log CLUSTER BY uid;
ADD JAR hdfs:///libs/udfs.jar;
CREATE TEMPORARY FUNCTION norm_url AS 'com.example.NormUrl';
INSERT OVERWRITE TABLE dws_url_cnt SELECT norm_url(url), CAST(ts AS BIGINT) FROM ods_log DISTRIBUTE BY url SORT BY ts;
LOAD DATA INPATH '/data/x' INTO TABLE ods_log PARTITION (dt = '2024-01-01');
MSCK REPAIR TABLE ods_log;
