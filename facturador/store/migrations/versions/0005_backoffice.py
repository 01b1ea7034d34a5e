"""the commercial back office: customers, suppliers, products, stock, kardex, quotations, sale notes

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-23

Persons (customers | suppliers, unique number per type), items (unique internal code per tenant, with a
price list), one warehouse per establishment with the stock of each item, the kardex of inventory moves,
quotations (prefix COT, correlative per establishment) and sale notes (internal document 80) with the
factura or boleta made from each. Every tenant gets a sale-note series NV01 on its main establishment.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_TENANTS = sa.table("tenants", sa.column("id", sa.Integer))
_ESTABLISHMENTS = sa.table("establishments", sa.column("id", sa.Integer), sa.column("tenant_id", sa.Integer))
_SERIES = sa.table(
    "series",
    sa.column("tenant_id", sa.Integer),
    sa.column("establishment_id", sa.Integer),
    sa.column("document_type_id", sa.String),
    sa.column("number", sa.String),
    sa.column("contingency", sa.Boolean),
    sa.column("last_number", sa.Integer),
)


def upgrade() -> None:
    op.create_table(
        "items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("internal_id", sa.String(length=30), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("second_name", sa.String(length=500), nullable=False),
        sa.Column("item_type_id", sa.String(length=2), nullable=False),
        sa.Column("item_code", sa.String(length=250), nullable=False),
        sa.Column("item_code_gs1", sa.String(length=100), nullable=False),
        sa.Column("barcode", sa.String(length=150), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("brand", sa.String(length=100), nullable=False),
        sa.Column("category", sa.String(length=100), nullable=False),
        sa.Column("unit_type_id", sa.String(length=3), nullable=False),
        sa.Column("currency_type_id", sa.String(length=3), nullable=False),
        sa.Column("sale_unit_price", sa.Numeric(precision=18, scale=6), nullable=False),
        sa.Column("purchase_unit_price", sa.Numeric(precision=18, scale=6), nullable=False),
        sa.Column("sale_affectation_igv_type_id", sa.String(length=2), nullable=False),
        sa.Column("purchase_affectation_igv_type_id", sa.String(length=2), nullable=False),
        sa.Column("has_igv", sa.Boolean(), nullable=False),
        sa.Column("calculate_quantity", sa.Boolean(), nullable=False),
        sa.Column("is_set", sa.Boolean(), nullable=False),
        sa.Column("stock_min", sa.Numeric(precision=24, scale=4), nullable=False),
        sa.Column("item_unit_types", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "internal_id", name="uq_item_internal_id"),
    )
    op.create_table(
        "persons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=10), nullable=False),
        sa.Column("identity_document_type_id", sa.String(length=2), nullable=False),
        sa.Column("number", sa.String(length=20), nullable=False),
        sa.Column("name", sa.String(length=1500), nullable=False),
        sa.Column("trade_name", sa.String(length=1500), nullable=False),
        sa.Column("country_id", sa.String(length=2), nullable=False),
        sa.Column("department_id", sa.String(length=2), nullable=False),
        sa.Column("province_id", sa.String(length=4), nullable=False),
        sa.Column("district_id", sa.String(length=6), nullable=False),
        sa.Column("address", sa.String(length=500), nullable=False),
        sa.Column("telephone", sa.String(length=30), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("perception_agent", sa.Boolean(), nullable=False),
        sa.Column("percentage_perception", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("internal_code", sa.String(length=100), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tenant_id", "type", "number", name="uq_person_number"),
    )
    op.create_index(
        "ix_persons_tenant_type_name", "persons", ["tenant_id", "type", "name", "number"], unique=False
    )
    op.create_index(
        "ix_items_search", "items", ["tenant_id", "active", "description", "internal_id"], unique=False
    )
    op.create_table(
        "warehouses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["establishment_id"],
            ["establishments.id"],
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("establishment_id"),
    )
    op.create_index(op.f("ix_warehouses_tenant_id"), "warehouses", ["tenant_id"], unique=False)
    op.create_table(
        "item_stocks",
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("warehouse_id", sa.Integer(), nullable=False),
        sa.Column("stock", sa.Numeric(precision=24, scale=4), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["warehouse_id"],
            ["warehouses.id"],
        ),
        sa.PrimaryKeyConstraint("item_id", "warehouse_id"),
    )
    op.create_index(op.f("ix_item_stocks_warehouse_id"), "item_stocks", ["warehouse_id"], unique=False)
    op.create_table(
        "sale_notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=36), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("series_id", sa.Integer(), nullable=False),
        sa.Column("series", sa.String(length=4), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("filename", sa.String(length=64), nullable=False),
        sa.Column("date_of_issue", sa.Date(), nullable=False),
        sa.Column("time_of_issue", sa.Time(), nullable=False),
        sa.Column("customer_id", sa.Integer(), nullable=False),
        sa.Column("currency_type_id", sa.String(length=3), nullable=False),
        sa.Column("exchange_rate_sale", sa.Numeric(precision=12, scale=6), nullable=False),
        sa.Column("total_exportation", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_free", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_unaffected", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_exonerated", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_taxed", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_igv", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_taxes", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_value", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("format_pdf", sa.String(length=16), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=True),
        sa.Column("converting", sa.Boolean(), nullable=False),
        sa.Column("data_json", sa.JSON(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"],
            ["persons.id"],
        ),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["documents.id"],
        ),
        sa.ForeignKeyConstraint(
            ["establishment_id"],
            ["establishments.id"],
        ),
        sa.ForeignKeyConstraint(
            ["series_id"],
            ["series.id"],
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("document_id"),
        sa.UniqueConstraint("external_id"),
        sa.UniqueConstraint("tenant_id", "series", "number", name="uq_sale_note_number"),
    )
    op.create_index("ix_sale_notes_tenant_date", "sale_notes", ["tenant_id", "date_of_issue"], unique=False)
    op.create_table(
        "inventory_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("warehouse_id", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=6), nullable=False),
        sa.Column("inventory_transaction_id", sa.String(length=2), nullable=True),
        sa.Column("quantity", sa.Numeric(precision=24, scale=4), nullable=False),
        sa.Column("balance", sa.Numeric(precision=24, scale=4), nullable=False),
        sa.Column("description", sa.String(length=255), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=True),
        sa.Column("sale_note_id", sa.Integer(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["item_id"], ["items.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["sale_note_id"], ["sale_notes.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["warehouse_id"],
            ["warehouses.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_inventory_moves_item", "inventory_moves", ["tenant_id", "item_id", "id"], unique=False
    )
    op.create_table(
        "quotations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=36), nullable=False),
        sa.Column("establishment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("prefix", sa.String(length=10), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("date_of_issue", sa.Date(), nullable=False),
        sa.Column("time_of_issue", sa.Time(), nullable=False),
        sa.Column("date_of_due", sa.Date(), nullable=True),
        sa.Column("delivery_date", sa.Date(), nullable=True),
        sa.Column("customer_id", sa.Integer(), nullable=False),
        sa.Column("currency_type_id", sa.String(length=3), nullable=False),
        sa.Column("exchange_rate_sale", sa.Numeric(precision=12, scale=6), nullable=False),
        sa.Column("total_exportation", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_free", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_unaffected", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_exonerated", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_taxed", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_igv", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_taxes", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total_value", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("total", sa.Numeric(precision=14, scale=2), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False),
        sa.Column("state_type_id", sa.String(length=2), nullable=False),
        sa.Column("data_json", sa.JSON(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"],
            ["persons.id"],
        ),
        sa.ForeignKeyConstraint(
            ["establishment_id"],
            ["establishments.id"],
        ),
        sa.ForeignKeyConstraint(["tenant_id"], ["tenants.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("external_id"),
        sa.UniqueConstraint("tenant_id", "establishment_id", "prefix", "number", name="uq_quotation_number"),
    )
    op.create_index("ix_quotations_tenant_created", "quotations", ["tenant_id", "id"], unique=False)
    connection = op.get_bind()
    for (tenant_id,) in connection.execute(sa.select(_TENANTS.c.id)):
        main = connection.scalar(
            sa.select(sa.func.min(_ESTABLISHMENTS.c.id)).where(_ESTABLISHMENTS.c.tenant_id == tenant_id)
        )
        exists = connection.scalar(
            sa.select(sa.func.count())
            .select_from(_SERIES)
            .where(_SERIES.c.tenant_id == tenant_id, _SERIES.c.document_type_id == "80")
        )
        if main is not None and not exists:
            connection.execute(
                _SERIES.insert().values(
                    tenant_id=tenant_id,
                    establishment_id=main,
                    document_type_id="80",
                    number="NV01",
                    contingency=False,
                    last_number=0,
                )
            )


def downgrade() -> None:
    op.drop_index("ix_quotations_tenant_created", table_name="quotations")
    op.drop_table("quotations")
    op.drop_index("ix_inventory_moves_item", table_name="inventory_moves")
    op.drop_table("inventory_moves")
    op.drop_index("ix_sale_notes_tenant_date", table_name="sale_notes")
    op.drop_table("sale_notes")
    op.drop_index(op.f("ix_item_stocks_warehouse_id"), table_name="item_stocks")
    op.drop_table("item_stocks")
    op.drop_index(op.f("ix_warehouses_tenant_id"), table_name="warehouses")
    op.drop_table("warehouses")
    op.drop_index("ix_persons_tenant_type_name", table_name="persons")
    op.drop_index("ix_items_search", table_name="items")
    op.drop_table("persons")
    op.drop_table("items")
    op.execute(_SERIES.delete().where(_SERIES.c.document_type_id == "80"))
