import HybridCore
import HybridServer
import HybridFixtures

// Compile-time checks only: these values cross threads (route handlers run on the server
// thread; jars are shared between the app, the proxy and the sync), so they must stay Sendable.
private func requireSendable<T: Sendable>(_: T.Type) {}

private func serverTypesAreSendable() {
    requireSendable(LoopbackServer.self)
    requireSendable(ServerRequest.self)
    requireSendable(ServerResponse.self)
    requireSendable(HTTPHeaders.self)
    requireSendable(StaticFiles.self)
    requireSendable(ByteRange.self)
    requireSendable(MultipartForm.self)
    requireSendable(EchoReply.self)
    requireSendable(RouteHandler.self)
}

private func cookieTypesAreSendable() {
    requireSendable(Cookie.self)
    requireSendable(SetCookie.self)
    requireSendable(CookieJar.self)
    requireSendable(CookieJar.Change.self)
    requireSendable(CookieJar.Policy.self)
    requireSendable(CookieJarObservation.self)
    requireSendable(DocumentCookieScript.self)
}
