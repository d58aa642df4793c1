-- database: default_database
-- A Flink source table with a computed column and a WATERMARK registers like any other CREATE TABLE.
CREATE TABLE src (
  id BIGINT,
  `ts` TIMESTAMP(3),
  proc AS PROCTIME(),
  WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen');
INSERT INTO snk SELECT * FROM src;
