// ReducerKit core benchmark: release build, ns/op as the median of several repetitions, with
// the raw reducer call measured in the same run as the floor.
//
//   swift run -c release reducerkit-bench            (or: make bench)
import ReducerKit
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

func nowNanoseconds() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

let repetitions = 7

/// Runs `body(iterations)` `repetitions` times; returns the median ns per iteration.
func measure(_ iterations: Int, _ body: (Int) -> Void) -> Double {
  body(max(1, iterations / 10))  // warm up
  var samples: [Double] = []
  for _ in 0..<repetitions {
    let start = nowNanoseconds()
    body(iterations)
    samples.append(Double(nowNanoseconds() - start) / Double(iterations))
  }
  samples.sort()
  return samples[samples.count / 2]
}

func measureAsync(_ iterations: Int, _ body: (Int) async -> Void) async -> Double {
  await body(max(1, iterations / 10))
  var samples: [Double] = []
  for _ in 0..<repetitions {
    let start = nowNanoseconds()
    await body(iterations)
    samples.append(Double(nowNanoseconds() - start) / Double(iterations))
  }
  samples.sort()
  return samples[samples.count / 2]
}

// MARK: Features under test

struct BenchCounter: Reducer {
  struct State: Equatable { var count = 0 }
  enum Action: Sendable { case increment, request, response }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count &+= 1
      return .none
    case .request:
      return .run { send in await send(.response) }
    case .response:
      state.count &+= 1
      return .none
    }
  }
}

struct Row: Reducer {
  struct State: Identifiable, Equatable {
    let id: Int
    var isOn = false
  }
  enum Action: Sendable { case toggle }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.isOn.toggle()
    return .none
  }
}

// The forEach rows need the IdentifiedCollections trait (`make bench` turns it on); a plain
// `swift build` builds the rest.
#if IdentifiedCollections
struct Rows: Reducer {
  struct State: Equatable { var rows: IdentifiedArrayOf<Row.State> = [] }
  enum Action: Sendable {
    case rows(IdentifiedActionOf<Row>)
    var rows: IdentifiedActionOf<Row>? {
      get { if case let .rows(action) = self { action } else { nil } }
      set { if let newValue { self = .rows(newValue) } }
    }
  }
  var body: some ReducerOf<Self> {
    EmptyReducer().forEach(\.rows, action: \.rows) { Row() }
  }
}

/// The same feature with a closure case path instead of a key path to the action case.
struct RowsCasePath: Reducer {
  typealias State = Rows.State
  typealias Action = Rows.Action
  var body: some ReducerOf<Self> {
    EmptyReducer().forEach(
      \.rows,
      action: AnyCasePath(embed: Action.rows, extract: { if case let .rows(a) = $0 { a } else { nil } })
    ) { Row() }
  }
}
#endif

// MARK: Runs

struct Line {
  let name: String
  let ns: Double
  let floor: Double?
}
var lines: [Line] = []

let n = Int(getenv("RK_BENCH_N").map { String(cString: $0) } ?? "") ?? 2_000_000
/// `reducerkit-bench [send|send0|effects|foreach]` runs one group (all by default; `send0`: the
/// send without subscribers alone, for `valgrind --tool=callgrind`).
let only = CommandLine.arguments.dropFirst().first
func group(_ name: String) -> Bool { only == nil || only == name }

/// The floor: one reducer call that the optimizer cannot fold away (as the store makes it).
@inline(never)
func rawReduce<R: Reducer>(_ reducer: R, _ state: inout R.State, _ action: R.Action) -> Effect<R.Action> {
  reducer.reduce(into: &state, action: action)
}

// The measured loops are in functions, not in top-level code: top-level variables are globals,
// and an access to a global counts exclusivity dynamically (~75 instructions per iteration,
// which would be charged to both the floor and the store).

@inline(never)
func rawCounter() -> Double {
  measure(n) { iterations in
    var state = BenchCounter.State()
    let reducer = BenchCounter()
    for _ in 0..<iterations { blackHole(rawReduce(reducer, &state, .increment)) }
    blackHole(state)
  }
}

@inline(never)
func storeSend(subscribers subscriberCount: Int) -> Double {
  let store = Store(initialState: BenchCounter.State()) { BenchCounter() }
  var subscriptions: [StoreSubscription] = []
  let seen = Atomic<Int>(0)
  for _ in 0..<subscriberCount {
    subscriptions.append(store.subscribe(select: { $0.count }) { seen.add($0, ordering: .relaxed) })
  }
  let ns = measure(n) { iterations in
    for _ in 0..<iterations { store.send(.increment) }
  }
  blackHole(seen.load(ordering: .relaxed))
  blackHole(subscriptions)
  return ns
}

let raw = rawCounter()
lines.append(Line(name: "raw reducer call (counter increment)", ns: raw, floor: nil))

for subscriberCount in [0, 1, 10] where group("send") || (group("send0") && subscriberCount == 0) {
  let ns = storeSend(subscribers: subscriberCount)
  lines.append(Line(name: "Store.send increment, \(subscriberCount) subscribers", ns: ns, floor: raw))
}

/// Runs on Swift's global pool (not the main actor), like effects and hosts' callers do.
nonisolated func effectRoundTrip() async -> Double {
  let store = Store(initialState: BenchCounter.State()) { BenchCounter() }
  return await measureAsync(max(200, n / 100)) { iterations in
    for _ in 0..<iterations { await store.send(.request).finish() }
  }
}
if group("effects") {
let roundTrip = await effectRoundTrip()
lines.append(Line(name: "effect round trip (.run { await send(.response) })", ns: roundTrip, floor: raw))
}

#if IdentifiedCollections
for count in [10, 1_000, 100_000] where group("foreach") {
  let state = Rows.State(rows: IdentifiedArray(uniqueElements: (0..<count).map { Row.State(id: $0) }))
  let store = Store(initialState: state) { Rows() }
  let ids = [0, count / 2, count - 1]
  let rowRaw = measure(n / 4) { iterations in
    var state = state
    let reducer = Rows()
    for i in 0..<iterations {
      blackHole(rawReduce(reducer, &state, .rows(.element(id: ids[i % 3], action: .toggle))))
    }
    blackHole(state)
  }
  let ns = measure(n / 4) { iterations in
    for i in 0..<iterations { store.send(.rows(.element(id: ids[i % 3], action: .toggle))) }
  }
  let casePathStore = Store(initialState: state) { RowsCasePath() }
  let casePathNS = measure(n / 4) { iterations in
    for i in 0..<iterations { casePathStore.send(.rows(.element(id: ids[i % 3], action: .toggle))) }
  }
  lines.append(Line(name: "forEach element action, raw reducer, \(count) rows", ns: rowRaw, floor: nil))
  lines.append(Line(name: "forEach via Store.send, action: \\.rows, \(count) rows", ns: ns, floor: raw))
  lines.append(Line(name: "forEach via Store.send, AnyCasePath, \(count) rows", ns: casePathNS, floor: raw))
}
#endif

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}
func format(_ value: Double) -> String {
  let rounded = (value * 10).rounded() / 10
  return "\(rounded)"
}

print("ReducerKit core benchmark (release, median of \(repetitions) runs)")
print(pad("benchmark", 58) + pad("ns/op", 12) + "x raw reducer")
for line in lines {
  let ratio = line.floor.map { format(line.ns / $0) + "x" } ?? "(floor)"
  print(pad(line.name, 58) + pad(format(line.ns), 12) + ratio)
}
