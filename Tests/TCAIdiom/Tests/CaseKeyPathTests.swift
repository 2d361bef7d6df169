import ReducerKitMacros
import ReducerKitTesting
import Testing

// Enums the macro must handle, compiled for real (the expansion tests check the text).

@CasePathable
enum Loadable<Value: Equatable, Failure: Error> {
  case idle
  case loaded(Value)
  case failed(Failure, retries: Int)
}

@CasePathable
enum `Type`: Equatable {
  case `default`
  case `init`(`for`: Int, `let`: String?)
  case café(_ 名前: String)
  case `Type`([`Type`])
}

@CasePathable
public enum PublicAction: Equatable {
  case tapped
  case move(from: Int, to: Int)
}

struct Wrapper<ID: Hashable & Sendable> {
  @CasePathable
  enum Action {
    case select(ID)
    case clear
  }
}

@MainActor
struct CaseKeyPathTests {
  @Test func extractEmbedAndIs() {
    let action = PublicAction.move(from: 1, to: 2)
    #expect(action[case: \.move]?.from == 1)
    #expect(action[case: \.move]?.to == 2)
    #expect(action[case: \.tapped] == nil)
    #expect(action.is(\.move))
    #expect(!action.is(\.tapped))
    let move: CaseKeyPath<PublicAction, (from: Int, to: Int)> = \.move
    #expect(move((from: 3, to: 4)) == .move(from: 3, to: 4))
    let tapped: CaseKeyPath<PublicAction, Void> = \.tapped
    #expect(tapped() == .tapped)
    #expect(\PublicAction.Cases.tapped == tapped)
  }

  @Test func settingACase() {
    var action = PublicAction.move(from: 1, to: 2)
    action[case: \.move] = (from: 5, to: 6)
    #expect(action == .move(from: 5, to: 6))
    action[case: \.tapped] = ()  // another case: nothing changes
    #expect(action == .move(from: 5, to: 6))
  }

  @Test func hostileNames() {
    #expect(`Type`.`default`.is(\.`default`))
    #expect(`Type`.`init`(for: 1, let: nil)[case: \.`init`]?.for == 1)
    #expect(`Type`.café("x")[case: \.café] == "x")
    // (`Type`.`Type` would be the metatype: the case is reached by an implicit member.)
    let nested: `Type` = .`Type`([.default])
    #expect(nested[case: \.`Type`] == [.default])
  }

  @Test func genericEnums() {
    struct Boom: Error {}
    let loaded = Loadable<Int, Boom>.loaded(3)
    #expect(loaded[case: \.loaded] == 3)
    let failed = Loadable<Int, Boom>.failed(Boom(), retries: 2)
    #expect(failed[case: \.failed]?.retries == 2)
    #expect(Wrapper<String>.Action.select("a")[case: \.select] == "a")
    #expect(Wrapper<String>.Action.clear.is(\.clear))
  }

  @Test func nestedPathsThroughLibraryEnums() {
    let contacts: CaseKeyPath<ContactsFeature.Action, String> = \.destination.addContact.setName
    guard case .destination(.presented(.addContact(.setName("Blob")))) = contacts("Blob") else {
      Issue.record("\\.destination.addContact.setName did not embed through .presented")
      return
    }
    let explicit: CaseKeyPath<ContactsFeature.Action, String> =
      \.destination.presented.addContact.setName
    #expect(explicit("x")[case: contacts] == "x")
    #expect(contacts("y")[case: explicit] == "y")
    let fact = CounterFeature.Action.factResponse(.success("fact"))
    #expect(fact[case: \.factResponse.success] == "fact")
    #expect(fact[case: \.factResponse.failure] == nil)
  }

  @Test func enumStateMembers() {
    var state = SessionFeature.State.login(LoginFeature.State())
    #expect(state.login?.email == "")
    #expect(state.home == nil)
    state.login?.email = "a@b.c"
    #expect(state.login?.email == "a@b.c")
    state.home?.visits = 3  // another case: nothing changes
    #expect(state == .login(LoginFeature.State(email: "a@b.c")))
  }

  @Test func receiveByCaseKeyPathReportsAMismatch() async {
    let store = TestStore(initialState: CounterFeature.State()) {
      CounterFeature()
    } withDependencies: {
      $0.numberFact.fetch = { "\($0)" }
    }
    await store.send(.factButtonTapped) { $0.isLoading = true }
    await withKnownIssue {
      await store.receive(\.timerTick)
    } matching: { issue in
      issue.description.contains("Received unexpected action")
        && issue.description.contains("expected an action of the case \\.timerTick")
    }
    #expect(store.state.fact == "0")
  }
}
