// Package docs holds dynapi's documentation. It has no code: its tests
// check that the architecture picture was rendered from its source as it
// stands, and that the links of the README and of these pages lead
// somewhere.
package docs
