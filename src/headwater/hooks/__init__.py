"""Hooks that report statements to a collector only after they succeeded: SQLAlchemy engines and DB-API
connections (sqlite3, pymysql, psycopg)."""
