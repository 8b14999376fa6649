"""spaCy adapters: each module holds one component factory over the pure core."""
