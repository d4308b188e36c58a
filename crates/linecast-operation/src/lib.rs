//! `#[operation(...)]` on a handler: its OpenAPI operation, written as
//! `#[utoipa::path(...)]` takes it (`tag`, `params`, `request_body`,
//! `responses`, ...), but without the method and the path. The route
//! table's row (`linecast_api::routes::table`) says both, once: the
//! document (`linecast_api::openapi::document`) places each row's
//! operation at the row's path under the row's method, so no handler
//! names its own row.
//!
//! It expands to `#[utoipa::path(get, path = linecast_http::endpoint::FROM_ROW, ...)]`
//! with the attribute's own arguments after them. utoipa needs a method
//! and a path to derive an operation; these two are placeholders the
//! document never reads. The path is an expression, not a literal, so
//! utoipa reads no parameter names out of it (the handler's `params`
//! declare them all).

use proc_macro::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};

#[proc_macro_attribute]
pub fn operation(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut args = TokenStream::new();
    args.extend(placeholders());
    if !attr.is_empty() {
        args.extend([punct(',')]);
        args.extend(attr);
    }
    let mut call = TokenStream::new();
    call.extend(path_of(&["utoipa", "path"], false));
    call.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, args))]);
    let mut out = TokenStream::new();
    out.extend([punct('#'), TokenTree::Group(Group::new(Delimiter::Bracket, call))]);
    out.extend(item);
    out
}

/// `get, path = ::linecast_http::endpoint::FROM_ROW`.
fn placeholders() -> TokenStream {
    let mut tokens = TokenStream::new();
    tokens.extend([ident("get"), punct(','), ident("path"), punct('=')]);
    tokens.extend(path_of(&["linecast_http", "endpoint", "FROM_ROW"], true));
    tokens
}

/// `a::b::c`, with a leading `::` when `absolute`.
fn path_of(segments: &[&str], absolute: bool) -> TokenStream {
    let mut tokens = TokenStream::new();
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 || absolute {
            tokens.extend([
                TokenTree::Punct(Punct::new(':', Spacing::Joint)),
                TokenTree::Punct(Punct::new(':', Spacing::Alone)),
            ]);
        }
        tokens.extend([ident(segment)]);
    }
    tokens
}

fn ident(name: &str) -> TokenTree {
    TokenTree::Ident(Ident::new(name, Span::call_site()))
}

fn punct(c: char) -> TokenTree {
    TokenTree::Punct(Punct::new(c, Spacing::Alone))
}
