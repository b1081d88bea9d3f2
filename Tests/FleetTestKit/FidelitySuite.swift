import Foundation

/// Runs fidelity scenarios one after another on one backend and reports each as it ends, then the total.
public enum FidelitySuite {
    /// Runs `scenarios` in order; `report` gets each summary line, then `N passed, N failed`.
    public static func run(_ scenarios: [FidelityScenario], on backend: any FidelityBackend,
                           report: (String) -> Void) async -> [FidelityResult] {
        var results: [FidelityResult] = []
        for scenario in scenarios {
            let result = await scenario.run(on: backend)
            report(result.line)
            results.append(result)
        }
        let passed = results.filter(\.passed).count
        report("\(passed) passed, \(results.count - passed) failed")
        return results
    }
}
