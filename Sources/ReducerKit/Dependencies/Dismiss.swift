/// Dismisses the presented feature that calls it, as TCA's `@Dependency(\.dismiss)`: from a
/// feature presented with `ifLet(\.$destination, action: \.destination)` it sends
/// `.destination(.dismiss)`; from a screen of a navigation stack (`forEach(\.path, action:
/// \.path)`) it sends `.path(.popFrom(id:))`. Either way the parent sees the action, then the
/// feature's state goes and its effects are cancelled.
///
/// ```swift
/// @Dependency(\.dismiss) var dismiss
/// …
/// case .closeButtonTapped:
///   return .run { _ in await dismiss() }
/// ```
///
/// Call it from an effect (it is async). An effect can send nothing after it: the feature is
/// gone. Called where nothing is presented, it reports a runtime issue (a test fails) and does
/// nothing.
public struct DismissEffect: Sendable {
  @usableFromInline let dismiss: @Sendable () async -> Void
  /// Whether this is the default value (nothing presented where it was read).
  let isDefault: Bool

  /// A dismiss that runs `dismiss` (for tests that check a feature dismisses itself alone).
  public init(_ dismiss: @escaping @Sendable () async -> Void) {
    self.dismiss = dismiss
    isDefault = false
  }

  /// The default value. A presented feature reads it while it reduces (its effects get the
  /// working one only when they run), so a run that captured it (`.run { [dismiss] _ in
  /// await dismiss() }`) looks up the dismiss of the effect it is called from.
  init(default: Void) {
    isDefault = true
    dismiss = {
      let current = DependencyValues._current.dismiss
      guard current.isDefault else { return await current() }
      _reportRuntimeIssue(
        "dismiss() was called from a feature that is not presented (not reduced by "
          + "ifLet(\\.$destination, action:) or forEach over a StackState); nothing was dismissed.")
    }
  }

  /// Dismisses the feature.
  public func callAsFunction() async { await dismiss() }
}

private enum DismissKey: DependencyKey {
  static var liveValue: DismissEffect { DismissEffect(default: ()) }
}

extension DependencyValues {
  /// Dismisses the presented feature that reads it (see ``DismissEffect``).
  public var dismiss: DismissEffect {
    get { self[DismissKey.self] }
    set { self[DismissKey.self] = newValue }
  }
}

extension Effect {
  /// This effect with `@Dependency(\.dismiss)` sending `dismissAction()` while each of its
  /// runs works (what a presented child's effects see).
  @usableFromInline
  func _dismissing(with dismissAction: @escaping @Sendable () -> Action) -> Self {
    _updatingDependencies { values, send in values.dismiss = DismissEffect { await send(dismissAction()) } }
  }
}
