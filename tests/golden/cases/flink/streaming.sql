-- database: default_database
-- Flink SQL job (the source's WATERMARK is left out: finding F09): connector tables, temporary views, a statement set with two sinks sharing a view.
SET 'execution.runtime-mode' = 'streaming';
CREATE TABLE kafka_orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  currency STRING,
  `ts` TIMESTAMP(3),
  proc_time TIMESTAMP(3)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = 'kafka:9092',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="p";',
  'format' = 'json'
);
CREATE TABLE mysql_users (
  user_id BIGINT,
  name STRING,
  country STRING,
  PRIMARY KEY (user_id) NOT ENFORCED
) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://db:3306/app', 'table-name' = 'users', 'password' = 'secret');
CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 's3://b/rates', 'format' = 'csv');
CREATE TABLE es_user_totals (user_id BIGINT, name STRING, total DECIMAL(18, 2), cnt BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'elasticsearch-7', 'hosts' = 'http://es:9200', 'index' = 'totals');
CREATE TABLE print_country (country STRING, window_start TIMESTAMP(3), total DECIMAL(18, 2)) WITH ('connector' = 'print');
CREATE TEMPORARY VIEW enriched AS
SELECT o.order_id, o.user_id, u.name, u.country, o.amount * r.rate AS amount_usd, o.`ts`
FROM kafka_orders o
JOIN mysql_users u ON o.user_id = u.user_id
LEFT JOIN rates r ON o.currency = r.currency
WHERE o.amount > 0;
EXECUTE STATEMENT SET
BEGIN
INSERT INTO es_user_totals SELECT user_id, name, SUM(amount_usd), COUNT(*) FROM enriched GROUP BY user_id, name;
INSERT INTO print_country SELECT country, TUMBLE_START(`ts`, INTERVAL '1' MINUTE), SUM(amount_usd) FROM enriched GROUP BY country, TUMBLE(`ts`, INTERVAL '1' MINUTE);
END;
BEGIN STATEMENT SET;
INSERT INTO es_user_totals (user_id, name, total, cnt) SELECT user_id, UPPER(name), 0, 0 FROM mysql_users WHERE country = 'DE';
INSERT INTO print_country SELECT country, CAST(NULL AS TIMESTAMP(3)), CAST(0 AS DECIMAL(18, 2)) FROM mysql_users;
END;
INSERT INTO es_user_totals
SELECT user_id, name, total, cnt FROM (
  SELECT user_id, name, SUM(amount_usd) AS total, COUNT(*) AS cnt,
         ROW_NUMBER() OVER (PARTITION BY country ORDER BY SUM(amount_usd) DESC) AS rn
  FROM enriched GROUP BY user_id, name, country
) WHERE rn <= 10;
INSERT INTO es_user_totals
SELECT o.user_id, COALESCE(u.name, 'n/a'), o.amount, 1
FROM kafka_orders AS o LEFT JOIN mysql_users FOR SYSTEM_TIME AS OF o.proc_time AS u ON o.user_id = u.user_id;
INSERT INTO es_user_totals
SELECT user_id, CAST(order_id AS STRING), amount, 1 FROM kafka_orders
UNION ALL
SELECT user_id, name, CAST(0 AS DECIMAL(10, 2)), 0 FROM mysql_users;
INSERT INTO es_user_totals
SELECT u.user_id, name, amount, 1 FROM kafka_orders o, mysql_users u WHERE o.user_id = u.user_id;
