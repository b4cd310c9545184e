"""The base layer: plain data, the errors, the setting and path checks and the registries that every other layer shares."""
