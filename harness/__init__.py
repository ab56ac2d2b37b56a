"""Sixty-Six Arena: a tournament runner and bot-competition harness for Sixty-Six."""

__version__ = "0.1.0"
