"""The editor: the language server, its transport, and the session it keeps across edits."""
