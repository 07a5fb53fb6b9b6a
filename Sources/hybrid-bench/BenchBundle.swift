import Foundation
import HybridFixtures

/// The bundle `hybrid bench update` patches: deterministic, minified-looking JavaScript in the
/// shape webpack emits (one module function per line in a module table), built from a fixed
/// vocabulary of API names, one- and two-letter locals, string and number literals, so identifiers
/// repeat as in real minified code. Not random bytes: zlib takes it to about a third, as it does a
/// real bundle.
struct BenchBundle {
    /// The modules, one per line.
    private(set) var modules: [String]

    /// A bundle of at least `bytes` bytes, the same for the same `seed`.
    init(bytes: Int, seed: UInt64 = 1) {
        var random = SplitMix64(seed: seed)
        modules = []
        var size = 0
        while size < bytes {
            let module = Self.module(&random, index: modules.count, statements: 5 + random.below(40))
            size += module.utf8.count + 2
            modules.append(module)
        }
    }

    /// The file's bytes.
    var data: Data { Data(("!function(){var modules=[\n" + modules.joined(separator: ",\n") + "];}();\n").utf8) }

    /// A one-line edit in the middle: a guard inserted at the top of the middle module.
    func oneLineEdit() -> BenchBundle {
        var copy = self
        let middle = modules.count / 2
        copy.modules[middle] = modules[middle].replacingOccurrences(of: "\"use strict\";", with: "\"use strict\";if(e==null)return t;")
        return copy
    }

    /// A release: statements rewritten in modules spread through the file until `fraction` of its
    /// bytes sit in touched modules (a quarter of each touched module's statements replaced), plus
    /// two added modules of about 20 KB at a third and two thirds of the file.
    /// - Returns: the new bundle and the bytes of the modules touched.
    func release(fraction: Double = 0.05, seed: UInt64 = 99) -> (bundle: BenchBundle, touchedBytes: Int) {
        var random = SplitMix64(seed: seed)
        var copy = self
        let total = modules.reduce(0) { $0 + $1.utf8.count }
        var touched = Set<Int>(), touchedBytes = 0
        while Double(touchedBytes) < Double(total) * fraction {
            let index = random.below(copy.modules.count)
            guard touched.insert(index).inserted else { continue }
            var pieces = copy.modules[index].components(separatedBy: ";")
            for _ in 0...(pieces.count / 4) {
                pieces[random.below(pieces.count)] = String(Self.statement(&random, depth: 0).dropLast())
            }
            touchedBytes += copy.modules[index].utf8.count
            copy.modules[index] = pieces.joined(separator: ";")
        }
        var added = SplitMix64(seed: seed &+ 1)
        copy.modules.insert(Self.module(&added, index: 90_001, statements: 180), at: copy.modules.count / 3)
        copy.modules.insert(Self.module(&added, index: 90_002, statements: 180), at: 2 * copy.modules.count / 3)
        return (copy, touchedBytes)
    }

    // MARK: Grammar

    private static let api = ["createElement", "prototype", "useState", "useEffect", "forEach", "length", "push", "apply", "call",
                              "bind", "Object", "defineProperty", "hasOwnProperty", "Symbol", "iterator", "Promise", "resolve", "then",
                              "catch", "Array", "isArray", "concat", "slice", "indexOf", "children", "props", "state", "setState",
                              "render", "default", "exports", "module", "__esModule", "document", "window", "addEventListener",
                              "removeEventListener", "querySelector", "style", "className", "innerHTML", "value", "target", "event",
                              "toString", "String", "Number", "Math", "floor", "max", "min", "JSON", "stringify", "parse", "Error",
                              "message", "name", "key", "ref", "type", "current", "memo", "context", "Provider", "Consumer",
                              "dispatch", "action", "payload", "reducer", "store", "getState", "subscribe"]
    private static let strings = ["div", "span", "button", "click", "change", "input", "submit", "loading", "error", "success",
                                  "/api/v1/users", "/api/v1/orders", "application/json", "Content-Type", "GET", "POST", "hidden",
                                  "active", "disabled", "modal", "header", "footer", "nav", "item", "list", "title", "description",
                                  "price", "quantity", "cart", "checkout"]
    private static let letters = Array("abcdefghijklmnopqrstuvwxyz").map(String.init)
    private static let operators = ["+", "-", "*", "===", "!==", "&&", "||", "<", ">"]

    private static func module(_ random: inout SplitMix64, index: Int, statements: Int) -> String {
        "/* \(index) */function(e,t,n){\"use strict\";" + (0..<statements).map { _ in statement(&random, depth: 0) }.joined() + "}"
    }

    private static func identifier(_ random: inout SplitMix64) -> String {
        if random.below(3) == 0 { return random.pick(api) }
        return random.pick(letters) + (random.below(4) == 0 ? random.pick(letters) : "")
    }

    private static func expression(_ random: inout SplitMix64, depth: Int) -> String {
        switch random.below(depth < 2 ? 9 : 5) {
        case 0: return String(random.below(1000))
        case 1: return "\"\(random.pick(strings))\""
        case 2: return identifier(&random) + "." + random.pick(api)
        case 3: return identifier(&random)
        case 4: return random.below(2) == 0 ? "!0" : "!1"
        case 5:
            let callee = identifier(&random) + "." + random.pick(api)
            return callee + "(" + (0..<random.below(3)).map { _ in expression(&random, depth: depth + 1) }.joined(separator: ",") + ")"
        case 6: return expression(&random, depth: depth + 1) + random.pick(operators) + expression(&random, depth: depth + 1)
        case 7:
            return expression(&random, depth: depth + 1) + "?" + expression(&random, depth: depth + 1) + ":" + expression(&random, depth: depth + 1)
        default:
            return "{" + (0...random.below(3)).map { _ in random.pick(api) + ":" + expression(&random, depth: depth + 1) }.joined(separator: ",") + "}"
        }
    }

    private static func statement(_ random: inout SplitMix64, depth: Int) -> String {
        switch random.below(depth < 2 ? 7 : 4) {
        case 0: return "var \(identifier(&random))=\(expression(&random, depth: 0));"
        case 1: return "\(identifier(&random)).\(random.pick(api))=\(expression(&random, depth: 0));"
        case 2: return "return \(expression(&random, depth: 0));"
        case 3: return expression(&random, depth: 0) + ";"
        case 4:
            return "if(\(expression(&random, depth: 0))){" + (0...random.below(3)).map { _ in statement(&random, depth: depth + 1) }.joined() + "}"
        case 5:
            let list = identifier(&random)
            return "for(var i=0;i<\(list).length;i++){" + (0...random.below(2)).map { _ in statement(&random, depth: depth + 1) }.joined() + "}"
        default:
            let parameters = (0..<random.below(4)).map { _ in random.pick(letters) }.joined(separator: ",")
            return "function \(identifier(&random))(\(parameters)){" + (0...random.below(4)).map { _ in statement(&random, depth: depth + 1) }.joined() + "}"
        }
    }
}
