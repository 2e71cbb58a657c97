"""HTTP routes, one blueprint per resource (``service.running.routes`` registers them all; this
package's own module imports nothing, so importing one route module loads only it)."""
