"""Where a call goes: provider sessions (``upstream``) and the route loop
with fallback (``forward``)."""
