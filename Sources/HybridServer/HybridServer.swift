import HybridCore
