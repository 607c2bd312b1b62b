//! Where a syntax visitor stands: the module path, the impl or trait block it is inside, and
//! whether it is in test code. Every visitor that names sites (the index, the fixture analysis,
//! the mutants walker) keeps one `Scope`, so all of them name the same code the same way.

use crate::syntax::FileRole;

#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// Crate, file module, inline modules.
    path: Vec<String>,
    /// The impl's self type or the trait, innermost last.
    self_ty: Vec<String>,
    /// For each of those: a trait's impl or a trait definition (its methods are dispatched).
    dispatched: Vec<bool>,
    /// Greater than zero inside test code.
    test_depth: usize,
}

impl Scope {
    /// The scope at the top of a file: test code throughout when the file is (by its place, or by
    /// `#![cfg(test)]`).
    pub(crate) fn file(
        crate_name: &str,
        module: &[String],
        role: FileRole,
        file: &syn::File,
    ) -> Scope {
        let path: Vec<String> = std::iter::once(crate_name.to_string())
            .chain(module.iter().cloned())
            .collect();
        Scope::at(&path, role == FileRole::Test, file)
    }

    /// The scope at the top of a file whose crate and module path is `path`.
    pub(crate) fn at(path: &[String], test_file: bool, file: &syn::File) -> Scope {
        Scope {
            path: path.to_vec(),
            self_ty: Vec::new(),
            dispatched: Vec::new(),
            test_depth: usize::from(test_file || super::is_cfg_test(&file.attrs)),
        }
    }

    pub(crate) fn in_test(&self) -> bool {
        self.test_depth > 0
    }

    /// `crate::module`.
    pub(crate) fn module(&self) -> String {
        self.path.join("::")
    }

    /// The impl's self type or the trait the visitor is in.
    pub(crate) fn self_ty(&self) -> Option<&str> {
        self.self_ty.last().map(String::as_str)
    }

    /// Inside a trait's impl (`impl Trait for Type`) or a trait definition: a method here is
    /// called through the trait, from code that may not know the type.
    pub(crate) fn in_trait(&self) -> bool {
        self.dispatched.last().copied().unwrap_or(false)
    }

    /// `crate::module::Type::item` (or `crate::module::item` outside impls and traits).
    pub(crate) fn site(&self, item: &str) -> String {
        let mut parts = self.path.clone();
        parts.extend(self.self_ty.last().cloned());
        parts.push(item.to_string());
        parts.join("::")
    }

    /// `crate::module::Type::field` for a struct literal of `ty`.
    pub(crate) fn field_site(&self, ty: &str, field: &str) -> String {
        let mut parts = self.path.clone();
        parts.push(ty.to_string());
        parts.push(field.to_string());
        parts.join("::")
    }

    /// Enter an inline module (test code under `#[cfg(test)]`, and one named for testing as a
    /// file module is: risingwave's `pub mod for_test { .. }`, `mod test_utils { .. }`); pair
    /// with [`Scope::leave`].
    pub(crate) fn enter_mod(&mut self, m: &syn::ItemMod) -> Entered {
        let name = m.ident.to_string();
        let named_test = super::names_testing(&name);
        self.path.push(name);
        self.enter(&m.attrs, named_test, Entered::Mod)
    }

    /// Enter an impl block, named as [`impl_name`] names it; pair with [`Scope::leave`].
    pub(crate) fn enter_impl(&mut self, i: &syn::ItemImpl) -> Entered {
        self.self_ty.push(impl_name(&i.self_ty));
        self.dispatched.push(i.trait_.is_some());
        self.enter(&i.attrs, false, Entered::Type)
    }

    /// Enter a trait definition (its default methods are named `crate::module::Trait::f`);
    /// pair with [`Scope::leave`].
    pub(crate) fn enter_trait(&mut self, t: &syn::ItemTrait) -> Entered {
        self.self_ty.push(t.ident.to_string());
        self.dispatched.push(true);
        self.enter(&t.attrs, false, Entered::Type)
    }

    /// Enter a block that is test code under `#[cfg(test)]` or when `named_test` says so.
    fn enter(
        &mut self,
        attrs: &[syn::Attribute],
        named_test: bool,
        kind: fn(bool) -> Entered,
    ) -> Entered {
        let test = named_test || super::is_cfg_test(attrs);
        self.push_test(test);
        kind(test)
    }

    /// Leave what [`Scope::enter_mod`] or [`Scope::enter_impl`] entered.
    pub(crate) fn leave(&mut self, entered: Entered) {
        match entered {
            Entered::Mod(test) => {
                self.pop_test(test);
                self.path.pop();
            }
            Entered::Type(test) => {
                self.pop_test(test);
                self.self_ty.pop();
                self.dispatched.pop();
            }
        }
    }

    /// Enter code that is test code when `test` holds (a `#[cfg(test)]` item, a `#[test]` fn).
    pub(crate) fn push_test(&mut self, test: bool) {
        self.test_depth += usize::from(test);
    }

    pub(crate) fn pop_test(&mut self, test: bool) {
        self.test_depth -= usize::from(test);
    }
}

/// What `enter_*` entered, and whether it made the code test code.
#[derive(Debug, Clone, Copy)]
#[must_use = "pass it to Scope::leave"]
pub(crate) enum Entered {
    Mod(bool),
    Type(bool),
}

/// The name an impl block goes by: its self type's last segment, through references and
/// parentheses (`impl<T> Fleet for &a::Controller<T>` -> `Controller`).
pub(crate) fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => super::last_segment(&p.path),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// [`type_name`], or `<impl>` for a type with no name (a tuple, a slice).
pub(crate) fn impl_name(ty: &syn::Type) -> String {
    type_name(ty).unwrap_or_else(|| "<impl>".to_string())
}
