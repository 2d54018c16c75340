"""Plans, subscriptions, invoices and payment webhook events."""
