role { # ERROR: E_LABEL a role block needs exactly one name
}

budget "main" { # ERROR: E_LABEL a budget block takes no name
}

role "" { # ERROR: E_LABEL role name is empty
}
