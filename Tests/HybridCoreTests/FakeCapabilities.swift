import HybridCore

extension EngineCapabilities {
    /// What a fake engine claims for the bridge: isolated worlds and message replies unless told not.
    static func fake(worlds: Bool = true, replies: Bool = true) -> EngineCapabilities {
        var capabilities: EngineCapabilities = [.schemeRequestBodies, .clearsHistory, .consoleMessages]
        if worlds { capabilities.insert(.scriptWorlds) }
        if replies { capabilities.insert(.messageReplies) }
        return capabilities
    }
}
