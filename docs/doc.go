// Package docs holds dynapi's documentation. It has no code: its test
// checks that the architecture picture was rendered from its source as it
// stands.
package docs
