"""The host's tools: the console a host runs a match with (console: what it offers;
hosting: a submitted form run as a service call), the audit log of every host
operation, and the dashboard's season ledger pages (admin_ledger; the dashboard
itself is games/core/admin.py, where Django looks for it).
"""
