"""Provider adapters: they parse sources into offers and never touch the database."""
