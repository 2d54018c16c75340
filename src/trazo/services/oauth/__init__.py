"""The OAuth providers (Google, GitHub): which are configured and how (providers), and the HTTP
conversations with them (clients). The sign-in and the administrators' vendor checks both use them."""
