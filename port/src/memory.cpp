// pod::Memory's flat implementation lives here (issue 6).
namespace pod {}
