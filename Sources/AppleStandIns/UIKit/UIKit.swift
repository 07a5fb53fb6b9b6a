// Linux-only stand-in for UIKit (docs/apple.md), iOS 15+, as the adapters use it: views, view
// controllers, navigation, bar items, progress and alerts. Closure parameters whose isolation
// UIKit's headers leave unstated are declared `@Sendable` and non-isolated — the strictest
// reading — so code that compiles here compiles whichever way the SDK imports them.
// UIKit re-exports Foundation, as Apple's does.
@_exported import FoundationAppleOnly

@MainActor
open class UIResponder: NSObject {}

public struct UIEdgeInsets: Sendable, Equatable {
    public var top: CGFloat, left: CGFloat, bottom: CGFloat, right: CGFloat
    public init(top: CGFloat, left: CGFloat, bottom: CGFloat, right: CGFloat) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }
}

@MainActor
open class UIView: UIResponder {
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let flexibleLeftMargin = AutoresizingMask(rawValue: 1 << 0)
        public static let flexibleWidth = AutoresizingMask(rawValue: 1 << 1)
        public static let flexibleRightMargin = AutoresizingMask(rawValue: 1 << 2)
        public static let flexibleTopMargin = AutoresizingMask(rawValue: 1 << 3)
        public static let flexibleHeight = AutoresizingMask(rawValue: 1 << 4)
        public static let flexibleBottomMargin = AutoresizingMask(rawValue: 1 << 5)
    }

    public init(frame: CGRect) { surfaceOnly() }
    public required init?(coder: NSCoder) { surfaceOnly() }
    open var frame: CGRect = .zero
    open var bounds: CGRect = .zero
    open var isHidden: Bool = false
    open var autoresizingMask: AutoresizingMask = []
    open var safeAreaInsets: UIEdgeInsets { surfaceOnly() }
    open var window: UIWindow? { surfaceOnly() }
    open var superview: UIView? { surfaceOnly() }
    open func addSubview(_ view: UIView) { surfaceOnly() }
    open func removeFromSuperview() { surfaceOnly() }
}

@MainActor
open class UIWindow: UIView {}

@MainActor
open class UIControl: UIView {}

@MainActor
open class UITextField: UIControl {
    open var text: String?
}

@MainActor
open class UIProgressView: UIView {
    public enum Style: Int, Sendable {
        case `default` = 0
        case bar = 1
    }
    public init(progressViewStyle style: UIProgressView.Style) { surfaceOnly() }
    public required init?(coder: NSCoder) { surfaceOnly() }
    open var progress: Float = 0
    open func setProgress(_ progress: Float, animated: Bool) { surfaceOnly() }
}

@MainActor
open class UIImage: NSObject {
    public init?(systemName name: String) { surfaceOnly() }
    /// UIKit's `pngData()` (a method of UIImage on iOS 12+).
    public func pngData() -> Data? { surfaceOnly() }
}

@MainActor
open class UIViewController: UIResponder {
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { surfaceOnly() }
    public required init?(coder: NSCoder) { surfaceOnly() }

    open var view: UIView! { get { surfaceOnly() } set { surfaceOnly() } }
    open var viewIfLoaded: UIView? { surfaceOnly() }
    open var isViewLoaded: Bool { surfaceOnly() }
    open var title: String?
    open var navigationItem: UINavigationItem { surfaceOnly() }
    open var navigationController: UINavigationController? { surfaceOnly() }
    open var presentedViewController: UIViewController? { surfaceOnly() }
    open var presentingViewController: UIViewController? { surfaceOnly() }
    open var isBeingDismissed: Bool { surfaceOnly() }
    open var isMovingFromParent: Bool { surfaceOnly() }
    open var transitionCoordinator: (any UIViewControllerTransitionCoordinator)? { surfaceOnly() }

    open func viewDidLoad() {}
    open func viewWillAppear(_ animated: Bool) {}
    open func viewDidAppear(_ animated: Bool) {}
    open func viewWillDisappear(_ animated: Bool) {}
    open func viewDidDisappear(_ animated: Bool) {}
    open func viewDidLayoutSubviews() {}

    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (@Sendable () -> Void)? = nil) {
        surfaceOnly()
    }
    open func dismiss(animated flag: Bool, completion: (@Sendable () -> Void)? = nil) { surfaceOnly() }
}

@MainActor
open class UINavigationController: UIViewController {
    open var viewControllers: [UIViewController] = []
    open var interactivePopGestureRecognizer: UIGestureRecognizer? { surfaceOnly() }
    open func pushViewController(_ viewController: UIViewController, animated: Bool) { surfaceOnly() }
    @discardableResult open func popViewController(animated: Bool) -> UIViewController? { surfaceOnly() }
}

@MainActor
open class UIGestureRecognizer: NSObject {
    open var isEnabled: Bool = true
}

@MainActor
open class UINavigationItem: NSObject {
    open var title: String?
    open var hidesBackButton: Bool = false
    open var leftBarButtonItems: [UIBarButtonItem]?
    open var leftItemsSupplementBackButton: Bool = false
}

@MainActor
open class UIBarItem: NSObject {}

@MainActor
open class UIBarButtonItem: UIBarItem {
    public enum SystemItem: Int, Sendable {
        case done = 0, cancel = 1, edit = 2, save = 3, add = 4, flexibleSpace = 5, fixedSpace = 6, compose = 7
        case reply = 8, action = 9, organize = 10, bookmarks = 11, search = 12, refresh = 13, stop = 14, camera = 15
        case trash = 16, play = 17, pause = 18, rewind = 19, fastForward = 20, undo = 21, redo = 22, pageCurl = 23, close = 24
    }
    /// iOS 14.
    public convenience init(title: String? = nil, image: UIImage? = nil, primaryAction: UIAction? = nil, menu: UIMenu? = nil) {
        surfaceOnly()
    }
    /// iOS 14.
    public convenience init(systemItem: UIBarButtonItem.SystemItem, primaryAction: UIAction? = nil, menu: UIMenu? = nil) {
        surfaceOnly()
    }
}

@MainActor
open class UIMenuElement: NSObject {}

@MainActor
open class UIMenu: UIMenuElement {}

public typealias UIActionHandler = @Sendable (UIAction) -> Void

@MainActor
open class UIAction: UIMenuElement {
    public convenience init(title: String = "", image: UIImage? = nil, handler: @escaping UIActionHandler) { surfaceOnly() }
}

@MainActor
open class UIAlertController: UIViewController {
    public enum Style: Int, Sendable {
        case actionSheet = 0
        case alert = 1
    }
    public convenience init(title: String?, message: String?, preferredStyle: UIAlertController.Style) { surfaceOnly() }
    open func addAction(_ action: UIAlertAction) { surfaceOnly() }
    open func addTextField(configurationHandler: (@Sendable (UITextField) -> Void)? = nil) { surfaceOnly() }
    open var textFields: [UITextField]? { surfaceOnly() }
    open var actions: [UIAlertAction] { surfaceOnly() }
}

@MainActor
open class UIAlertAction: NSObject {
    public enum Style: Int, Sendable {
        case `default` = 0
        case cancel = 1
        case destructive = 2
    }
    public convenience init(title: String?, style: UIAlertAction.Style, handler: (@Sendable (UIAlertAction) -> Void)? = nil) {
        surfaceOnly()
    }
}

@MainActor
public protocol UIViewControllerTransitionCoordinatorContext: NSObjectProtocol {
    var isCancelled: Bool { get }
    var isAnimated: Bool { get }
}

@MainActor
public protocol UIViewControllerTransitionCoordinator: UIViewControllerTransitionCoordinatorContext {
    @discardableResult
    func animate(
        alongsideTransition animation: (@Sendable (any UIViewControllerTransitionCoordinatorContext) -> Void)?,
        completion: (@Sendable (any UIViewControllerTransitionCoordinatorContext) -> Void)?) -> Bool
}

/// The body of every stand-in declaration: the stand-ins are compiled, never run.
func surfaceOnly(_ function: StaticString = #function) -> Never {
    fatalError("\(function) is a declaration of Apple's SDK for type-checking; it never runs")
}
