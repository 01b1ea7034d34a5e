"""Alembic environment: runs on the connection handed over by ``facturador.store.db.upgrade``."""

from alembic import context
from sqlalchemy import create_engine

from facturador.store.models import Base, include_object

config = context.config
target_metadata = Base.metadata


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is None:  # invoked from the alembic command line
        engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
        with engine.begin() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=True,
                include_object=include_object(connection.dialect.name),
            )
            context.run_migrations()
        return
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        include_object=include_object(connection.dialect.name),
    )
    context.run_migrations()


run_migrations()
