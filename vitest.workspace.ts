// The list of test projects. Vitest 5 no longer reads this file by itself, so vitest.config.ts
// imports it: this is the one place that says which packages have tests.
export default ["packages/*", "examples", "scripts"]
