"""A person at the table: `arena play` (the session, the view and the command)."""
