"""What every layer stands on: configuration, the app's shared resources, the application's
refusals and safe JSON. Imports nothing of the service."""
