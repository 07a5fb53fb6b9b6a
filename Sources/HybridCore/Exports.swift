// HybridCore is the container (view and its features, pool, config, first screen) and the
// umbrella of the modules below it, so `import HybridCore` alone still gives an app all of
// HybridKit's public API (docs/architecture.md shows the graph).
@_exported import HybridBase
@_exported import HybridBridge
@_exported import HybridEngine
@_exported import HybridHTTP
@_exported import HybridHealth
@_exported import HybridNetwork
@_exported import HybridPackages
