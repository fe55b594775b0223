package limits

// Check is the limit's statement, for tests that read its plan.
const Check = check
