import Testing
@Test func placeholderWire() { #expect(1 == 1) }
