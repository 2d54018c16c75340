"""Plans, subscriptions, invoices and payment webhook events."""
from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import Base, IdMixin, TimestampMixin, UTCDateTime, utcnow

FREE_PLAN_CODE = "FREE"
PROVIDER_STRIPE = "stripe"
BASE_CURRENCY = "usd"
SUPPORTED_CURRENCIES = ("usd", "eur", "gbp", "mxn", "brl")
RESOURCE_TYPES = ("projects", "diagrams", "storage")
MEGABYTE = 1024 * 1024

# Subscription statuses (the browser client knows exactly these five).
ACTIVE = "active"
PENDING = "pending"
PAYMENT_FAILED = "payment_failed"
CANCELLED = "cancelled"
EXPIRED = "expired"
# A subscription in one of these states gives its plan to the user; a failed payment keeps the plan
# while the payment provider retries, instead of dropping the user to the free plan.
CURRENT_STATUSES = (ACTIVE, PAYMENT_FAILED)
_CURRENT_SQL = "status IN ('active', 'payment_failed')"


class Plan(IdMixin, TimestampMixin, Base):
    """A plan; limits of None mean unlimited. Paid plans mirror a product and a price at the gateway."""

    __tablename__ = "plans"

    code: Mapped[str] = mapped_column(String(30), unique=True, nullable=False)
    name: Mapped[str] = mapped_column(String(50), unique=True, nullable=False)
    description: Mapped[str | None] = mapped_column(String(500))
    max_projects: Mapped[int | None] = mapped_column(Integer)
    max_diagrams: Mapped[int | None] = mapped_column(Integer)
    max_storage_mb: Mapped[int | None] = mapped_column(Integer)
    # Unlabelled revisions kept per diagram beyond which the oldest are pruned (docs/history.md).
    max_revisions_per_diagram: Mapped[int | None] = mapped_column(Integer)
    # Labelled (named) revisions a diagram may hold; they are never pruned (docs/history.md).
    max_labelled_revisions_per_diagram: Mapped[int | None] = mapped_column(Integer)
    # Members of each team workspace the subscriber is billing owner of, owners included (docs/teams.md).
    max_members: Mapped[int | None] = mapped_column(Integer)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True, nullable=False, index=True)
    gateway_provider: Mapped[str | None] = mapped_column(String(32))
    gateway_product_id: Mapped[str | None] = mapped_column(String(255), index=True)
    gateway_price_id: Mapped[str | None] = mapped_column(String(255))

    prices: Mapped[list["PlanPrice"]] = relationship(
        back_populates="plan", lazy="selectin", cascade="all, delete-orphan", passive_deletes=True,
        order_by="PlanPrice.currency")

    @property
    def is_free(self):
        return self.code == FREE_PLAN_CODE

    @property
    def amounts(self):
        """Monthly price per currency, in minor units (cents)."""
        return {price.currency: price.amount_minor for price in self.prices}

    @property
    def base_amount(self):
        return self.amounts.get(BASE_CURRENCY, 0)

    def limit_for(self, resource_type):
        """The limit in the unit usage is counted in: items, or bytes for storage."""
        storage = None if self.max_storage_mb is None else self.max_storage_mb * MEGABYTE
        return {"projects": self.max_projects, "diagrams": self.max_diagrams, "storage": storage}[resource_type]


class PlanPrice(Base):
    """One monthly price of a plan per currency, in minor units."""

    __tablename__ = "plan_prices"

    plan_id: Mapped[str] = mapped_column(String(36), ForeignKey("plans.id", ondelete="CASCADE"), primary_key=True)
    currency: Mapped[str] = mapped_column(String(3), primary_key=True)
    amount_minor: Mapped[int] = mapped_column(Integer, nullable=False)

    plan: Mapped[Plan] = relationship(back_populates="prices")


class Subscription(IdMixin, TimestampMixin, Base):
    """A user's subscription to a plan. Users without a current one are on the FREE plan."""

    __tablename__ = "subscriptions"
    __table_args__ = (
        # At most one current subscription per user, whatever the order of webhook deliveries.
        Index("uq_subscriptions_current_user", "user_id", unique=True,
              sqlite_where=text(_CURRENT_SQL), postgresql_where=text(_CURRENT_SQL)),
    )

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False,
                                         index=True)
    # Plans that have subscriptions are deactivated, never deleted.
    plan_id: Mapped[str] = mapped_column(String(36), ForeignKey("plans.id", ondelete="RESTRICT"), nullable=False,
                                         index=True)
    status: Mapped[str] = mapped_column(String(32), default=ACTIVE, nullable=False)
    payment_provider: Mapped[str | None] = mapped_column(String(32))
    stripe_customer_id: Mapped[str | None] = mapped_column(String(255), index=True)
    stripe_subscription_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
    current_period_start: Mapped[datetime | None] = mapped_column(UTCDateTime())
    current_period_end: Mapped[datetime | None] = mapped_column(UTCDateTime())
    cancel_at_period_end: Mapped[bool] = mapped_column(Boolean, default=False, nullable=False)
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    # Creation time of the newest gateway event applied, so late deliveries of older events are ignored.
    gateway_event_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    plan: Mapped[Plan] = relationship(lazy="joined")

    @property
    def is_current(self):
        return self.status in CURRENT_STATUSES


class Invoice(IdMixin, TimestampMixin, Base):
    """A gateway invoice of the user, kept as billing history."""

    __tablename__ = "invoices"
    __table_args__ = (Index("ix_invoices_user_id_issued_at", "user_id", "issued_at"),)

    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("users.id", ondelete="CASCADE"), nullable=False)
    stripe_invoice_id: Mapped[str] = mapped_column(String(255), unique=True, nullable=False)
    stripe_customer_id: Mapped[str | None] = mapped_column(String(255))
    stripe_subscription_id: Mapped[str | None] = mapped_column(String(255))
    number: Mapped[str | None] = mapped_column(String(100))
    status: Mapped[str | None] = mapped_column(String(32))
    currency: Mapped[str] = mapped_column(String(3), nullable=False)
    amount_due: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    amount_paid: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    description: Mapped[str | None] = mapped_column(String(500))
    hosted_invoice_url: Mapped[str | None] = mapped_column(String(2048))
    invoice_pdf: Mapped[str | None] = mapped_column(String(2048))
    issued_at: Mapped[datetime] = mapped_column(UTCDateTime(), nullable=False)
    paid_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class WebhookEvent(IdMixin, Base):
    """One row per gateway event handled; the unique event id makes deliveries idempotent."""

    __tablename__ = "webhook_events"

    event_id: Mapped[str] = mapped_column(String(255), unique=True, nullable=False)
    provider: Mapped[str] = mapped_column(String(32), nullable=False)
    event_type: Mapped[str] = mapped_column(String(100), nullable=False)
    outcome: Mapped[str] = mapped_column(String(32), nullable=False)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, nullable=False)
