"""The league: a long-running arena that bots join from anywhere, with a live leaderboard."""
