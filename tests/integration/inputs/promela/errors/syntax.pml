// error: 2:27 expected an expression, found `;`
active proctype P() { x = ; }
