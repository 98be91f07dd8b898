"""SkyPilot catalog (schema v8 ``vms.csv``) adapter: :mod:`.rows` reads rows, :mod:`.adapter` adapts."""
