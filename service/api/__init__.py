"""HTTP routes, one blueprint per resource (``service.routes`` registers them all; this
package's own module imports nothing, so importing one route module loads only it)."""
