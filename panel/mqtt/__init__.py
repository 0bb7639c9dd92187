"""The cockpit on a venue's MQTT broker: the topics and payloads (`protocol`), the settings
(`settings`), the cockpit's bridge (`bridge`) and the broker's configuration (`broker`).

Optional: nothing here is imported unless the settings file has an [mqtt] table or the
venue process runs.
"""
