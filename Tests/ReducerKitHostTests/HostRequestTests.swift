import ReducerKit
@testable import ReducerKitHost
import ReducerKitWire
import Testing
import ReducerKitTestSupport

/// A child whose effect asks the host (endpoint "lookup"); the parent can remove it.
private enum LookupEndpoint: DependencyKey {
  static let liveValue = HostEndpoint<Int, String>("lookup") { "\($0) in Swift" }
}

extension DependencyValues {
  fileprivate var lookup: HostEndpoint<Int, String> {
    get { self[LookupEndpoint.self] }
    set { self[LookupEndpoint.self] = newValue }
  }
}

private struct Child: Reducer {
  struct State: Equatable, Sendable { var result: String? }
  enum Action: Equatable, Sendable { case load(Int), loaded(String), stop }
  enum LoadID { case load }
  @Dependency(\.lookup) var lookup

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case let .load(key):
      return .run { [lookup] send in await send(.loaded(try await lookup(key))) }
        .cancellable(id: LoadID.load)
    case let .loaded(result):
      state.result = result
      return .none
    case .stop:
      return .cancel(id: LoadID.load)
    }
  }
}

private struct Parent: Reducer {
  struct State: Equatable, Sendable { var child: Child.State? = Child.State() }
  enum Action: Equatable, Sendable { case child(Child.Action), dismiss }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      if case .dismiss = action { state.child = nil }
      return .none
    }
    .ifLet(\.child, action: AnyCasePath(embed: Action.child, extract: {
      if case let .child(action) = $0 { action } else { nil }
    })) { Child() }
  }
}

/// The request table behind `"provide"`, driven from Swift: every way an effect can be
/// cancelled reaches the host as a cancellation, after its request.
@Suite struct HostRequestTests {
  private func makeStore(_ requests: HostRequests) -> StoreOf<Parent> {
    let endpoint = Feature.Endpoint.endpoint(\.lookup)
    return Store(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      Feature.Endpoint.provide([endpoint], in: &$0, requests: requests)
    }
  }

  private func events(_ requests: HostRequests) throws -> [JSONValue] {
    guard case let .array(events) = try parseJSON(requests.take()) else { return [] }
    return events
  }

  private func resolveError(_ requests: HostRequests, _ id: UInt64, _ json: String) -> HostError? {
    Array(json.utf8).withUnsafeBytes { bytes in
      do throws(HostError) {
        try requests.resolve(id, bytes)
        return nil
      } catch {
        return error
      }
    }
  }

  @Test func removingTheChildCancelsItsRequest() async throws {
    let requests = HostRequests()
    let store = makeStore(requests)
    store.send(.child(.load(7)))
    #expect(try events(requests) == [try parseJSON(#"{"id":1,"name":"lookup","payload":7}"#)])
    #expect(store.effectCount == 1)
    store.send(.dismiss)
    #expect(try events(requests) == [try parseJSON(#"{"id":1,"cancelled":true}"#)])
    let error = resolveError(requests, 1, #""late""#)
    #expect(error?.status == .invalidArgument)
    #expect(error?.message.contains("request 1 was cancelled") == true)
    #expect(await store.finishEffects(timeout: cap(.seconds(10))))
  }

  @Test func aCancelIDCancelsTheRequestAndAnswersAreCheckedFirst() async throws {
    let requests = HostRequests()
    let store = makeStore(requests)
    store.send(.child(.load(1)))
    _ = try events(requests)
    // A wrong response is refused, and the request stays pending.
    #expect(resolveError(requests, 1, "42")?.status == .response)
    #expect(resolveError(requests, 1, "[")?.status == .json)
    #expect(resolveError(requests, 2, #""x""#)?.message.contains("unknown request id 2") == true)
    store.send(.child(.stop))
    #expect(try events(requests) == [try parseJSON(#"{"id":1,"cancelled":true}"#)])
    store.send(.child(.load(2)))
    #expect(resolveError(requests, 2, #""two""#) == nil)
    #expect(resolveError(requests, 2, #""two""#)?.message.contains("already answered") == true)
    #expect(await store.finishEffects(timeout: cap(.seconds(10))))
    #expect(store.state.child?.result == "two")
  }

  @Test func closingCancelsPendingRequestsAndRefusesNewOnes() async throws {
    let requests = HostRequests()
    let store = makeStore(requests)
    store.send(.child(.load(3)))
    _ = try events(requests)
    store.invalidate()
    requests.close()
    #expect(resolveError(requests, 1, #""x""#)?.message.contains("cancelled") == true)
    #expect(await store.finishEffects(timeout: cap(.seconds(10))))
    #expect(store.state.child?.result == nil)
  }
}
