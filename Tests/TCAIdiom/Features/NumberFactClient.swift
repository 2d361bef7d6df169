import ReducerKitMacros

// A dependency as swift-dependencies users write it (without its @DependencyClient macro).
struct NumberFactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

extension NumberFactClient: DependencyKey {
  static let liveValue = NumberFactClient(fetch: { number in "\(number) is a number." })
  static let testValue = NumberFactClient(fetch: { _ in
    struct Unimplemented: Error {}
    throw Unimplemented()
  })
}

extension DependencyValues {
  var numberFact: NumberFactClient {
    get { self[NumberFactClient.self] }
    set { self[NumberFactClient.self] = newValue }
  }
}
