"""What `flask seed` creates: the default records, each seeder idempotent and answering one line."""
from .billing.plans import seed_free_plan

SEEDERS = (seed_free_plan,)
